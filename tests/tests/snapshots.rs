//! Snapshots of what tinyaot generates, one per fixture model and output: the Rust source
//! (`rust@<model>.snap`, what build.rs, `include_model!` and `tinyaot rust` produce), the memory
//! plan (`plan@<model>.snap`, `tinyaot plan`'s table) and the C sources (`c@<model>.snap`, what
//! `tinyaot c` writes). A change to the loader, planner, lowering or either emitter shows up here as
//! a reviewable diff of the generated code.
//!
//! Updating, after a deliberate change to the generated code:
//!
//! ```text
//! cargo insta test -p tinyaot-tests --test snapshots --review     # with cargo-insta installed
//! INSTA_UPDATE=always cargo test -p tinyaot-tests --test snapshots  # without: writes the .snap files
//! git diff tests/tests/snapshots/                                   # ... then review every change
//! ```
//!
//! CI runs with `INSTA_UPDATE=no`: a snapshot that differs fails, and nothing is written. Generated
//! code is deterministic and names models by file name only, so the snapshots need no redactions.
//!
//! Which models: every `tests/fixtures/models/*.tflite` of at most [`MAX_MODEL_BYTES`]. The weights
//! are part of the generated code, so larger models would only add pages of constant data to review;
//! their generated code is exercised by the conformance tests instead. Of the C output, the
//! snapshot holds the model's own files (`<prefix>.h`, `<prefix>.c`) and the names of the kernel
//! files it needs: the kernels are the templates of `templates/c/` rendered nearly verbatim, and
//! repeating them in every model's snapshot would bury the model-specific changes.
//!
//! The build-system files `tinyaot c --layout` adds (`c_build_files@<layout>.snap`) are
//! snapshotted once, for the DS-CNN under the prefix `net`: they depend on the model only through
//! its file name and the list of kernel files.

use std::fmt::Write as _;
use std::path::Path;

use tinyaot_codegen::config::c_sources;
use tinyaot_codegen::emit::c::{default_prefix, COptions};

/// Largest model (file size) snapshotted: 20 KiB. This takes every fixture but the CNNs
/// (`float_cnn_float`, `ds_cnn`, `resnet8`, `autoencoder` and the MobileNets), whose generated
/// Rust is 65 KB to 1.7 MB.
const MAX_MODEL_BYTES: u64 = 20 * 1024;

/// The file stem and bytes of `path`, or `None` if the model is too large to snapshot.
fn model(path: &Path) -> Option<(String, Vec<u8>)> {
    let size = std::fs::metadata(path).expect("stat model").len();
    if size > MAX_MODEL_BYTES {
        return None;
    }
    let stem = tinyaot_codegen::config::file_stem(path).expect("UTF-8 file name");
    Some((stem, std::fs::read(path).expect("read model")))
}

/// Snapshot settings shared by every test: names without the module prefix (`rust@x.tflite.snap`).
fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

#[test]
fn rust() {
    settings().bind(|| {
        insta::glob!("../fixtures/models", "*.tflite", |path| {
            let Some((stem, bytes)) = model(path) else {
                return;
            };
            let source = tinyaot_codegen::Config::new()
                .generate(&bytes, &stem)
                .unwrap_or_else(|e| panic!("{stem}: {e}"));
            insta::assert_snapshot!(source);
        });
    });
}

#[test]
fn plan() {
    settings().bind(|| {
        insta::glob!("../fixtures/models", "*.tflite", |path| {
            let Some((stem, bytes)) = model(path) else {
                return;
            };
            let graph =
                tinyaot_codegen::config::load_and_fold(&bytes, &tinyaot_codegen::Limits::default())
                    .unwrap_or_else(|e| panic!("{stem}: {e}"));
            let plan =
                tinyaot_codegen::plan::plan_graph(&graph).unwrap_or_else(|e| panic!("{stem}: {e}"));
            insta::assert_snapshot!(tinyaot_codegen::plan::report::text(&graph, &plan));
        });
    });
}

#[test]
fn c() {
    settings().bind(|| {
        insta::glob!("../fixtures/models", "*.tflite", |path| {
            let Some((stem, bytes)) = model(path) else {
                return;
            };
            let options = COptions {
                prefix: default_prefix(&stem),
                source_name: format!("{stem}.tflite"),
            };
            let files = c_sources(&bytes, &options).unwrap_or_else(|e| panic!("{stem}: {e}"));
            let own = [
                format!("{}.h", options.prefix),
                format!("{}.c", options.prefix),
            ];
            let mut text = String::new();
            for name in &own {
                let (_, contents) = files
                    .iter()
                    .find(|(file, _)| file == name)
                    .unwrap_or_else(|| panic!("{stem}: no {name} generated"));
                let _ = writeln!(text, "==> {name} <==\n{contents}");
            }
            let others: Vec<&str> = files
                .iter()
                .map(|(file, _)| file.as_str())
                .filter(|file| !own.iter().any(|o| o == file))
                .collect();
            let _ = writeln!(text, "==> also generated: {} <==", others.join(" "));
            insta::assert_snapshot!(text);
        });
    });
}

#[test]
fn c_build_files() {
    use tinyaot_codegen::{CLayout, Config};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/models/ds_cnn.tflite");
    let bytes = std::fs::read(&path).expect("read ds_cnn");
    let sources = c_sources(
        &bytes,
        &COptions {
            prefix: "net".to_string(),
            source_name: "ds_cnn.tflite".to_string(),
        },
    )
    .expect("generates");
    settings().bind(|| {
        for name in CLayout::NAMES {
            let layout = CLayout::from_name(name).expect("known layout");
            let files = Config::new()
                .prefix("net")
                .layout(layout)
                .generate_c(&bytes, "ds_cnn")
                .expect("generates");
            let mut text = String::new();
            for (file, contents) in &files {
                // The sources, wherever the layout puts them, are the `c` snapshots' business.
                let base = file.rsplit('/').next().unwrap_or(file);
                let source = sources.iter().find(|(s, _)| s == base);
                match source {
                    Some((_, expected)) => {
                        assert_eq!(contents, expected, "{name}: {file} is not the source");
                        let _ = writeln!(text, "==> {file}: the source <==");
                    }
                    None => {
                        let _ = writeln!(text, "==> {file} <==\n{contents}");
                    }
                }
            }
            insta::assert_snapshot!(format!("c_build_files@{name}"), text);
        }
    });
}

/// A small group of two models sharing one arena (`Config::generate_group` and
/// `generate_group_c`, what `tinyaot rust A B` and `tinyaot c A B` write): the stateful
/// `svdf_int8`, its output kept out of the shared arena, and `sine_mlp`. Of the C, the group's
/// files and each model's own `.h` and `.c`, and the names of the kernel files.
#[test]
fn group() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/models");
    let members = [
        tinyaot_codegen::GroupModel::new(models.join("svdf_int8.tflite"))
            .name("Kws")
            .prefix("kws")
            .keep("output0"),
        tinyaot_codegen::GroupModel::new(models.join("sine_mlp.tflite"))
            .name("Cmd")
            .prefix("cmd"),
    ];
    let config = tinyaot_codegen::Config::new();
    settings().bind(|| {
        let rust = config
            .generate_group(&members)
            .unwrap_or_else(|e| panic!("{e}"));
        insta::assert_snapshot!("group_rust", rust);
        let files = config
            .generate_group_c(&members)
            .unwrap_or_else(|e| panic!("{e}"));
        let own = ["models.h", "models.c", "kws.h", "kws.c", "cmd.h", "cmd.c"];
        let mut text = String::new();
        for name in own {
            let (_, contents) = files
                .iter()
                .find(|(file, _)| file == name)
                .unwrap_or_else(|| panic!("no {name} generated"));
            let _ = writeln!(text, "==> {name} <==\n{contents}");
        }
        let others: Vec<&str> = files
            .iter()
            .map(|(file, _)| file.as_str())
            .filter(|file| !own.contains(file))
            .collect();
        let _ = writeln!(text, "==> also generated: {} <==", others.join(" "));
        insta::assert_snapshot!("group_c", text);
    });
}

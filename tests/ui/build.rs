//! Writes `pair.rs`: the stateful streaming_kws (`Kws`) and ds_cnn (`Cmd`) sharing one arena, made
//! through `Config::compile_group` as a user's build script makes a group, for the case
//! `cases/group_output_across_invoke.rs` (the borrow rule between the group's models).

use std::path::{Path, PathBuf};

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/models");
    let kws = fixtures.join("streaming_kws.tflite");
    let cmd = fixtures.join("ds_cnn.tflite");
    for model in [&kws, &cmd] {
        println!("cargo:rerun-if-changed={}", model.display());
    }
    tinyaot_codegen::Config::new()
        .group_name("Pair")
        .out_dir(&out_dir)
        .compile_group(&[
            tinyaot_codegen::GroupModel::new(kws).name("Kws"),
            tinyaot_codegen::GroupModel::new(cmd).name("Cmd"),
        ])
        .unwrap_or_else(|e| panic!("group Pair: {e}"));
}

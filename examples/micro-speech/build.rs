//! Compiles TFLM's micro_speech models as one group sharing one arena, `$OUT_DIR/models.rs`:
//! `Models`, with `preprocessor()` (the audio front end, `audio_preprocessor_int8.tflite`) and
//! `keyword()` (`micro_speech_quantized.tflite`), whose input (the 49 x 40 feature buffer) is kept
//! out of the shared arena so that it fills row by row across the preprocessor's invokes.
//!
//! The models are TFLM's, used where they are: `$TINYAOT_SHARED_DIR/models`, else `../shared/models`
//! beside the repository. Without them the build says so (a warning) and the library is empty;
//! the binary then explains what is missing.

use std::path::PathBuf;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(micro_speech_models)");
    println!("cargo:rerun-if-env-changed=TINYAOT_SHARED_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let shared = std::env::var_os("TINYAOT_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared"));
    let preprocessor = shared.join("models/audio_frontend/audio_preprocessor_int8.tflite");
    let keyword = shared.join("models/micro_speech_quantized.tflite");
    for model in [&preprocessor, &keyword] {
        // Also reruns the script once a missing model appears.
        println!("cargo:rerun-if-changed={}", model.display());
    }
    if !preprocessor.is_file() || !keyword.is_file() {
        println!(
            "cargo:warning=the micro_speech example needs TFLM's models: {} or {} is missing \
             (put the project's shared/ directory beside the repository or set \
             TINYAOT_SHARED_DIR)",
            preprocessor.display(),
            keyword.display()
        );
        return;
    }
    let group = tinyaot_codegen::Config::new().compile_group(&[
        tinyaot_codegen::GroupModel::new(&preprocessor).name("Preprocessor"),
        tinyaot_codegen::GroupModel::new(&keyword)
            .name("Keyword")
            .keep("input0"),
    ]);
    if let Err(error) = group {
        // A refused model stops the build with tinyaot's message.
        eprintln!("error: {error}");
        std::process::exit(1);
    }
    println!("cargo:rustc-cfg=micro_speech_models");
}

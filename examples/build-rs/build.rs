//! Compiles the bundled DS-CNN keyword spotter into `$OUT_DIR/ds_cnn.rs`.

fn main() {
    if let Err(error) =
        tinyaot_codegen::Config::new().compile("../../tests/fixtures/models/ds_cnn.tflite")
    {
        // A refused model stops the build with tinyaot's message.
        eprintln!("error: {error}");
        std::process::exit(1);
    }
}

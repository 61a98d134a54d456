//! Runs the DS-CNN keyword spotter compiled by build.rs on a recorded input, prints its prediction,
//! and checks it against TensorFlow Lite Micro's output for the same input.

include!(concat!(env!("OUT_DIR"), "/ds_cnn.rs"));

/// An input spectrogram (49 x 10, int8) and what TFLM outputs for it, from the fixture goldens.
const INPUT: &[u8] = include_bytes!("../../../tests/fixtures/golden/ds_cnn/case0/input0.bin");
const TFLM_OUTPUT: &[u8] =
    include_bytes!("../../../tests/fixtures/golden/ds_cnn/case0/output0.bin");

fn main() {
    // The arena is a few kilobytes; `new` is `const`, so the model could equally be a `static`.
    let mut model = DsCnn::new();
    for (slot, byte) in model.input0_mut().iter_mut().zip(INPUT) {
        *slot = *byte as i8;
    }
    model.invoke();

    let scores = model.output0();
    let probability =
        |q: i8| (i32::from(q) - DsCnn::OUTPUT0_ZERO_POINT) as f32 * DsCnn::OUTPUT0_SCALE;
    let (best, &best_score) = scores
        .iter()
        .enumerate()
        .max_by_key(|(_, s)| **s)
        .expect("the model has outputs");
    println!(
        "DS-CNN keyword spotter: {} bytes of arena",
        DsCnn::ARENA_BYTES
    );
    println!(
        "prediction: class {best} with probability {:.3}",
        probability(best_score)
    );
    let agrees = scores.iter().zip(TFLM_OUTPUT).all(|(a, b)| *a as u8 == *b);
    println!(
        "TensorFlow Lite Micro: {}",
        if agrees {
            "identical output"
        } else {
            "DIFFERENT output"
        }
    );
    if !agrees {
        std::process::exit(1);
    }
}

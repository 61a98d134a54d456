//! The keyword pipeline of TFLM's micro_speech example (`micro_speech_test.cc`: `GenerateFeatures`,
//! then `LoadMicroSpeechModelAndPerformInference`) over the group build.rs compiles: a 30 ms window
//! of audio every 20 ms through the audio preprocessor, its 40 features one row of a 49 x 40 buffer,
//! then the keyword model once on the buffer.
//!
//! The buffer is the keyword model's input itself: build.rs keeps it out of the shared arena, so
//! the preprocessor's invokes (which reuse every other byte of that arena) leave the rows already
//! written alone, and no copy of the buffer is made.
//!
//! The group `Models` comes from the module around this one (`super`), as `cargo xtask mcu`
//! compiles this file into the Cortex-M firmware beside the same group.

use super::Models;

/// Audio samples per second.
pub const SAMPLE_RATE: usize = 16_000;
/// Samples per window (30 ms): the preprocessor's input.
pub const WINDOW: usize = 30 * SAMPLE_RATE / 1000;
/// Samples from one window to the next (20 ms).
pub const STRIDE: usize = 20 * SAMPLE_RATE / 1000;
/// Features per window: the preprocessor's output, one row of the buffer.
pub const FEATURE_SIZE: usize = 40;
/// Rows of the buffer: the windows of one second of audio.
pub const FEATURE_COUNT: usize = 49;
/// What the four scores are the scores of, in order.
pub const LABELS: [&str; 4] = ["silence", "unknown", "yes", "no"];

/// Fills the keyword model's input with the features of `audio` (16 kHz, one second or less), as
/// TFLM's `GenerateFeatures` does: the preprocessor starts afresh (its noise estimates reset, as a
/// new TFLM interpreter starts them), then one window every [`STRIDE`] samples while a whole
/// [`WINDOW`] remains and fewer than [`FEATURE_COUNT`] rows were made. Returns the rows made (49
/// for a second of audio); the rows after them keep what they held, as TFLM's buffer does.
pub fn features(models: &mut Models, audio: &[i16]) -> usize {
    models.preprocessor().reset();
    let mut rows = 0;
    let mut start = 0;
    while audio.len() - start >= WINDOW && rows < FEATURE_COUNT {
        let mut preprocessor = models.preprocessor();
        preprocessor
            .input0_mut()
            .copy_from_slice(&audio[start..start + WINDOW]);
        preprocessor.invoke();
        let row = *preprocessor.output0();
        models.keyword().input0_mut()[rows * FEATURE_SIZE..(rows + 1) * FEATURE_SIZE]
            .copy_from_slice(&row);
        rows += 1;
        start += STRIDE;
    }
    rows
}

/// Runs the keyword model on the feature buffer: the int8 scores of [`LABELS`].
pub fn scores(models: &mut Models) -> [i8; 4] {
    let mut keyword = models.keyword();
    keyword.invoke();
    *keyword.output0()
}

/// [`features`] then [`scores`]: raw audio in, the keyword scores out.
pub fn classify(models: &mut Models, audio: &[i16]) -> [i8; 4] {
    features(models, audio);
    scores(models)
}

/// A score as a probability (the keyword model's output quantization).
pub fn probability(score: i8) -> f32 {
    (i32::from(score) - super::Keyword::OUTPUT0_ZERO_POINT) as f32 * super::Keyword::OUTPUT0_SCALE
}

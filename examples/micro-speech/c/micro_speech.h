/* The keyword pipeline of TFLM's micro_speech example over the group `tinyaot c` writes for its two
 * models (the audio preprocessor with prefix `preprocessor`, the keyword model with prefix `keyword`
 * and its input kept: `--keep keyword:input0`; the commands are in the project's README, "A keyword
 * pipeline"): a 30 ms window of 16 kHz audio every 20 ms through the preprocessor, its 40 features
 * one row of the keyword model's 49 x 40 input, then the keyword model once. The C twin of
 * examples/micro-speech/src/pipeline.rs. */
#ifndef MICRO_SPEECH_H
#define MICRO_SPEECH_H

#include <stddef.h>
#include <stdint.h>

#include "models.h"

#define MICRO_SPEECH_SAMPLE_RATE 16000
/* Samples per window (30 ms): the preprocessor's input. */
#define MICRO_SPEECH_WINDOW 480
/* Samples from one window to the next (20 ms). */
#define MICRO_SPEECH_STRIDE 320
/* Features per window, and windows (rows) per second. */
#define MICRO_SPEECH_FEATURE_SIZE 40
#define MICRO_SPEECH_FEATURE_COUNT 49
#define MICRO_SPEECH_CATEGORIES 4

/* What the four scores are the scores of, in order. */
extern const char *const micro_speech_labels[MICRO_SPEECH_CATEGORIES];

/* Fills the keyword model's input with the features of `samples` samples of `audio` (one second
 * or less), as TFLM's GenerateFeatures does: the preprocessor starts afresh (preprocessor_reset),
 * then one window every MICRO_SPEECH_STRIDE samples while a whole window remains and fewer than 49
 * rows were made. Returns the rows made (49 for a second), or -1 if a model's invoke failed. */
int micro_speech_features(const int16_t *audio, size_t samples);

/* Runs the keyword model on the feature buffer: its four int8 scores (keyword_output(0)), or NULL
 * if its invoke failed. Valid until the next invoke of either model. */
const int8_t *micro_speech_scores(void);

#endif /* MICRO_SPEECH_H */

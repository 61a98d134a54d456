/* The keyword pipeline (see micro_speech.h). The feature buffer is the keyword model's input,
 * kept out of the shared arena (--keep keyword:input0): the preprocessor's invokes leave the rows
 * already written alone. */
#include "micro_speech.h"

#include <string.h>

#if KEYWORD_INPUT0_BYTES != MICRO_SPEECH_FEATURE_SIZE * MICRO_SPEECH_FEATURE_COUNT || \
    PREPROCESSOR_INPUT0_BYTES != 2 * MICRO_SPEECH_WINDOW ||                           \
    PREPROCESSOR_OUTPUT0_BYTES != MICRO_SPEECH_FEATURE_SIZE ||                        \
    KEYWORD_OUTPUT0_BYTES != MICRO_SPEECH_CATEGORIES
#error "the group is not TFLM's micro_speech models (preprocessor, keyword)"
#endif

const char *const micro_speech_labels[MICRO_SPEECH_CATEGORIES] = {"silence", "unknown", "yes",
                                                                  "no"};

int micro_speech_features(const int16_t *audio, size_t samples)
{
    uint8_t *features = (uint8_t *)keyword_input(0);
    size_t start = 0;
    int rows = 0;
    preprocessor_reset();
    while (samples - start >= MICRO_SPEECH_WINDOW && rows < MICRO_SPEECH_FEATURE_COUNT) {
        memcpy(preprocessor_input(0), audio + start, 2 * MICRO_SPEECH_WINDOW);
        if (preprocessor_invoke() != 0) {
            return -1;
        }
        memcpy(features + (size_t)rows * MICRO_SPEECH_FEATURE_SIZE, preprocessor_output(0),
               MICRO_SPEECH_FEATURE_SIZE);
        rows += 1;
        start += MICRO_SPEECH_STRIDE;
    }
    return rows;
}

const int8_t *micro_speech_scores(void)
{
    if (keyword_invoke() != 0) {
        return NULL;
    }
    return (const int8_t *)keyword_output(0);
}

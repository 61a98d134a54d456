/* Test driver for the keyword pipeline (tests/tests/micro_speech.rs): the group `models` of TFLM's
 * micro_speech preprocessor (`preprocessor`) and keyword model (`keyword`, input kept) with
 * examples/micro-speech/c/micro_speech.c over it, run on clips in the order given, in one process
 * (so each clip must start the preprocessor afresh, as TFLM's example does).
 *
 *   micro_speech_driver AUDIO FEATURES SCORES [AUDIO FEATURES SCORES]...
 *
 * AUDIO: raw int16 samples (at most one second); FEATURES: written with the 49 x 40 feature buffer
 * (the keyword model's input); SCORES: written with the 4 keyword scores. Exits non-zero with a
 * message on stderr at the first problem. */
#include <stdio.h>

#include "micro_speech.h"

static int16_t audio[MICRO_SPEECH_SAMPLE_RATE];

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "micro_speech driver: %s: %s\n", what, detail);
    return 1;
}

static int write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f != NULL && fwrite(bytes, 1, n, f) == n;
    if (f != NULL && fclose(f) != 0) {
        ok = 0;
    }
    return ok;
}

int main(int argc, char **argv)
{
    int a;
    if (argc < 4 || (argc - 1) % 3 != 0) {
        return fail("usage", "micro_speech_driver AUDIO FEATURES SCORES...");
    }
    for (a = 1; a + 2 < argc; a += 3) {
        FILE *f = fopen(argv[a], "rb");
        size_t samples;
        const int8_t *scores;
        if (f == NULL) {
            return fail("cannot open", argv[a]);
        }
        /* Raw little-endian samples, read as the host's int16: the driver runs on little-endian
         * hosts only, as the generated code does. */
        samples = fread(audio, 2, MICRO_SPEECH_SAMPLE_RATE, f);
        fclose(f);
        if (micro_speech_features(audio, samples) != MICRO_SPEECH_FEATURE_COUNT) {
            return fail("not 49 windows of features", argv[a]);
        }
        if (!write_file(argv[a + 1], keyword_input(0), KEYWORD_INPUT0_BYTES)) {
            return fail("cannot write", argv[a + 1]);
        }
        if ((scores = micro_speech_scores()) == NULL) {
            return fail("the keyword model's invoke failed", argv[a]);
        }
        if (!write_file(argv[a + 2], scores, KEYWORD_OUTPUT0_BYTES)) {
            return fail("cannot write", argv[a + 2]);
        }
    }
    return 0;
}

/* Keyword spotting from raw audio in C: each second of a 16 kHz recording (raw 16-bit
 * little-endian samples) through TFLM's micro_speech preprocessor and keyword model, compiled by
 * `tinyaot c` as one group sharing one arena, and the four scores printed. See the project's
 * README, "A keyword pipeline", for the commands. */
#include <stdio.h>
#include <stdlib.h>

#include "micro_speech.h"

static int16_t audio[MICRO_SPEECH_SAMPLE_RATE];

/* Reads up to one second of samples; returns how many (0 at the end of the file). */
static size_t read_second(FILE *f)
{
    unsigned char bytes[2];
    size_t n = 0;
    while (n < MICRO_SPEECH_SAMPLE_RATE && fread(bytes, 1, 2, f) == 2) {
        audio[n++] = (int16_t)(uint16_t)(bytes[0] | (unsigned)bytes[1] << 8);
    }
    return n;
}

int main(int argc, char **argv)
{
    int a;
    printf("micro_speech: shared arena %u bytes, the group %u bytes\n", MODELS_SHARED_BYTES,
           MODELS_MEMORY_BYTES);
    if (argc < 2) {
        fprintf(stderr, "usage: %s AUDIO.raw...  (16 kHz, 16-bit little-endian samples)\n", argv[0]);
        return 2;
    }
    for (a = 1; a < argc; ++a) {
        FILE *f = fopen(argv[a], "rb");
        size_t n;
        int second = 0;
        if (f == NULL) {
            fprintf(stderr, "error: cannot open %s\n", argv[a]);
            return 1;
        }
        while ((n = read_second(f)) >= MICRO_SPEECH_WINDOW) {
            int rows = micro_speech_features(audio, n);
            const int8_t *scores = rows < 0 ? NULL : micro_speech_scores();
            int i, best = 0;
            if (scores == NULL) {
                fprintf(stderr, "error: a model's invoke failed\n");
                fclose(f);
                return 1;
            }
            printf("%s [%d s, %d windows]:", argv[a], second, rows);
            for (i = 0; i < MICRO_SPEECH_CATEGORIES; ++i) {
                printf("%s %s %d (%.3f)", i == 0 ? "" : ",", micro_speech_labels[i], scores[i],
                       (scores[i] - KEYWORD_OUTPUT0_ZERO_POINT) * KEYWORD_OUTPUT0_SCALE);
                if (scores[i] > scores[best]) {
                    best = i;
                }
            }
            printf(" -> %s\n", micro_speech_labels[best]);
            second += 1;
        }
        fclose(f);
    }
    return 0;
}

// Runs person_detect, compiled to C by `tinyaot c`, on a 96x96 grayscale image.
//
//   cargo run --release -p tinyaot-cli -- c ../shared/models/person_detect.tflite -o build/person_detect --prefix net
//   cc -std=c99 -O2 -Ibuild/person_detect build/person_detect/*.c examples/c/person_detect.c -o build/person_detect_demo
//   ./build/person_detect_demo ../shared/models/golden/person_detect/case0/input0.bin
//
// The generated files need nothing but a C99 compiler: no malloc, no stdio, no libm. This driver uses
// stdio only to read the image and print the result. Without an argument it runs on a synthetic image.
#include <stdint.h>
#include <stdio.h>

#include "net.h"

static int read_image(const char *path, int8_t *pixels, size_t bytes) {
    FILE *file = fopen(path, "rb");
    size_t got;
    if (file == NULL) {
        perror(path);
        return -1;
    }
    got = fread(pixels, 1, bytes, file);
    fclose(file);
    if (got != bytes) {
        fprintf(stderr, "%s: expected %u bytes of int8 pixels, got %u\n", path, (unsigned)bytes,
                (unsigned)got);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int8_t *pixels = (int8_t *)net_input(0);
    const int8_t *scores;
    size_t i;

    if (argc > 1) {
        if (read_image(argv[1], pixels, net_input_bytes(0)) != 0) {
            return 1;
        }
    } else {
        for (i = 0; i < net_input_bytes(0); i++) {
            pixels[i] = (int8_t)((int)(i % 96) + (int)(i / 96) - 96);
        }
    }
    if (net_invoke() != 0) {
        fprintf(stderr, "net_invoke failed\n");
        return 1;
    }
    scores = (const int8_t *)net_output(0);
    printf("person_detect: %u bytes of arena; scores: no person %d, person %d -> %s\n",
           (unsigned)NET_ARENA_BYTES, scores[0], scores[1],
           scores[1] > scores[0] ? "person" : "no person");
    return 0;
}

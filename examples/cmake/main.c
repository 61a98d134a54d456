// Runs the DS-CNN keyword spotter, compiled by `tinyaot c --prefix net` and built through its
// CMakeLists.txt, on an input file and compares its output byte for byte with an expected file
// (TFLM's golden output): `ds_cnn_check INPUT.bin EXPECTED.bin`. Exit status 0 when they match.
// Only this driver uses stdio; the model's code needs nothing but a C99 compiler.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "net.h"

// Reads exactly `bytes` bytes of `path` into `data`; 0 on success.
static int read_exactly(const char *path, void *data, size_t bytes) {
    FILE *file = fopen(path, "rb");
    size_t got;
    int extra;
    if (file == NULL) {
        perror(path);
        return -1;
    }
    got = fread(data, 1, bytes, file);
    extra = fgetc(file);
    fclose(file);
    if (got != bytes || extra != EOF) {
        fprintf(stderr, "%s: expected exactly %u bytes\n", path, (unsigned)bytes);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    static uint8_t expected[NET_OUTPUT0_BYTES];
    const uint8_t *output;
    size_t i;

    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUT.bin EXPECTED.bin\n", argv[0]);
        return 2;
    }
    if (read_exactly(argv[1], net_input(0), net_input_bytes(0)) != 0 ||
        read_exactly(argv[2], expected, sizeof expected) != 0) {
        return 2;
    }
    if (net_invoke() != 0) {
        fprintf(stderr, "net_invoke failed\n");
        return 1;
    }
    output = (const uint8_t *)net_output(0);
    for (i = 0; i < sizeof expected; i++) {
        if (output[i] != expected[i]) {
            fprintf(stderr, "output byte %u: %d, expected %d\n", (unsigned)i, (int8_t)output[i],
                    (int8_t)expected[i]);
            return 1;
        }
    }
    printf("ds_cnn: %u output bytes bit-exact with TFLM (arena %u bytes)\n",
           (unsigned)sizeof expected, (unsigned)NET_ARENA_BYTES);
    return 0;
}

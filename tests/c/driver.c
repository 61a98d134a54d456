/* Test driver for the C conformance test (tests/tests/c_conformance.rs): runs a generated model on
 * the golden inputs, in one process so that state carries between cases as on a device.
 *
 * Reads commands from stdin, one per line:
 *   in INDEX PATH    read PATH into net_input(INDEX) (its size must be net_input_bytes(INDEX))
 *   invoke           call net_invoke, which must return 0 (then print `ran`) or, in a model with a
 *                    CIRCULAR_BUFFER, NET_WAITING (then print `waiting`)
 *   out INDEX PATH   write net_output(INDEX) to PATH
 *   reset            call net_reset (the state of a fresh instance)
 * and checks the API's bad-index answers once at start. Exits non-zero with a message on stderr at
 * the first problem.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "driver: %s: %s\n", what, detail);
    return 1;
}

int main(void)
{
    char line[4096];
    char path[4000];
    int index;
    if (net_input(-1) != NULL || net_input(NET_NUM_INPUTS) != NULL ||
        net_input_bytes(NET_NUM_INPUTS) != 0 || net_output(NET_NUM_OUTPUTS) != NULL ||
        net_output_bytes(-1) != 0) {
        return fail("api", "a bad index did not give NULL / 0");
    }
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (sscanf(line, "in %d %3999[^\n]", &index, path) == 2) {
            unsigned char *dst = (unsigned char *)net_input(index);
            size_t want = net_input_bytes(index);
            size_t got;
            FILE *f = fopen(path, "rb");
            if (dst == NULL) {
                return fail("bad input index", line);
            }
            if (f == NULL) {
                return fail("cannot open", path);
            }
            got = fread(dst, 1, want, f);
            if (got != want || fgetc(f) != EOF) {
                fclose(f);
                return fail("input size differs from net_input_bytes", path);
            }
            fclose(f);
        } else if (strncmp(line, "invoke", 6) == 0) {
            int status = net_invoke();
#ifdef NET_WAITING
            if (status == NET_WAITING) {
                puts("waiting");
                continue;
            }
#endif
            if (status != 0) {
                return fail("net_invoke", "returned neither 0 nor NET_WAITING");
            }
            puts("ran");
        } else if (strncmp(line, "reset", 5) == 0) {
            net_reset();
        } else if (sscanf(line, "out %d %3999[^\n]", &index, path) == 2) {
            const void *src = net_output(index);
            size_t n = net_output_bytes(index);
            FILE *f = fopen(path, "wb");
            if (src == NULL) {
                return fail("bad output index", line);
            }
            if (f == NULL) {
                return fail("cannot create", path);
            }
            if (fwrite(src, 1, n, f) != n) {
                fclose(f);
                return fail("cannot write", path);
            }
            fclose(f);
        } else if (line[0] != '\n') {
            return fail("unknown command", line);
        }
    }
    return 0;
}

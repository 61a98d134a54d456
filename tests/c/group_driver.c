/* Test driver for two models sharing one arena (tests/tests/shared_arena.rs): a group `models`
 * of the models with prefixes `kws` and `cmd`, run in one process in whatever order the commands
 * say, so that each model's state and kept outputs must survive the other's invokes.
 *
 * Reads commands from stdin, one per line, MODEL being `kws` or `cmd`:
 *   in MODEL INDEX PATH    read PATH into MODEL_input(INDEX) (exactly MODEL_input_bytes(INDEX))
 *   invoke MODEL           call MODEL_invoke (which must return 0)
 *   out MODEL INDEX PATH   write MODEL_output(INDEX) to PATH
 *   reset                  call models_reset (every model's initial state)
 * Exits non-zero with a message on stderr at the first problem.
 */
#include <stdio.h>
#include <string.h>

#include "models.h"

typedef struct {
    void *(*input)(int);
    size_t (*input_bytes)(int);
    const void *(*output)(int);
    size_t (*output_bytes)(int);
    int (*invoke)(void);
} model_api;

static const model_api KWS = {kws_input, kws_input_bytes, kws_output, kws_output_bytes, kws_invoke};
static const model_api CMD = {cmd_input, cmd_input_bytes, cmd_output, cmd_output_bytes, cmd_invoke};

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "group driver: %s: %s\n", what, detail);
    return 1;
}

static const model_api *model(const char *name)
{
    return strcmp(name, "kws") == 0 ? &KWS : strcmp(name, "cmd") == 0 ? &CMD : NULL;
}

int main(void)
{
    char line[4096];
    char name[16];
    char path[4000];
    int index;
    const model_api *m;
    if (MODELS_SHARED_BYTES < KWS_ARENA_BYTES || MODELS_SHARED_BYTES < CMD_ARENA_BYTES ||
        sizeof models_arena.bytes != MODELS_MEMORY_BYTES) {
        return fail("sizes", "a model's arena is larger than the shared one, or the buffer is off");
    }
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (sscanf(line, "in %15s %d %3999[^\n]", name, &index, path) == 3) {
            unsigned char *dst;
            size_t want;
            FILE *f;
            if ((m = model(name)) == NULL || (dst = (unsigned char *)m->input(index)) == NULL) {
                return fail("bad model or input index", line);
            }
            want = m->input_bytes(index);
            if ((f = fopen(path, "rb")) == NULL) {
                return fail("cannot open", path);
            }
            if (fread(dst, 1, want, f) != want || fgetc(f) != EOF) {
                fclose(f);
                return fail("input size differs from MODEL_input_bytes", path);
            }
            fclose(f);
        } else if (sscanf(line, "invoke %15s", name) == 1) {
            if ((m = model(name)) == NULL || m->invoke() != 0) {
                return fail("invoke", line);
            }
        } else if (sscanf(line, "out %15s %d %3999[^\n]", name, &index, path) == 3) {
            const void *src;
            size_t n;
            FILE *f;
            if ((m = model(name)) == NULL || (src = m->output(index)) == NULL) {
                return fail("bad model or output index", line);
            }
            n = m->output_bytes(index);
            if ((f = fopen(path, "wb")) == NULL) {
                return fail("cannot create", path);
            }
            if (fwrite(src, 1, n, f) != n) {
                fclose(f);
                return fail("cannot write", path);
            }
            fclose(f);
        } else if (strncmp(line, "reset", 5) == 0) {
            models_reset();
        } else if (line[0] != '\n') {
            return fail("unknown command", line);
        }
    }
    return 0;
}

/* The do-nothing model (see net.h): a 16-byte arena, input at offset 0, output at offset 1. */
#include "net.h"

static uint8_t net_arena[NET_ARENA_BYTES];

int net_invoke(void)
{
    net_arena[1] = net_arena[0];
    return 0;
}

void net_reset(void) {}

void *net_input(int index) { return index == 0 ? &net_arena[0] : NULL; }

size_t net_input_bytes(int index) { return index == 0 ? 1u : 0u; }

const void *net_output(int index) { return index == 0 ? &net_arena[1] : NULL; }

size_t net_output_bytes(int index) { return index == 0 ? 1u : 0u; }

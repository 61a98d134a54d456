/* A do-nothing model with the generated code's interface (see `tinyaot c`): one 1-byte input
 * copied to one 1-byte output. `cargo xtask mcu` builds the firmware around it to measure the
 * harness's own flash and RAM. */
#ifndef NET_TINYAOT_H
#define NET_TINYAOT_H

#include <stddef.h>
#include <stdint.h>

#define NET_ARENA_BYTES 16u
#define NET_STATE_BYTES 0u
#define NET_WEIGHTS_BYTES 0u
#define NET_NUM_INPUTS 1
#define NET_NUM_OUTPUTS 1

int net_invoke(void);
void net_reset(void);
void *net_input(int index);
size_t net_input_bytes(int index);
const void *net_output(int index);
size_t net_output_bytes(int index);

#endif

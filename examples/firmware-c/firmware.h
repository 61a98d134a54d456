/* Shared declarations of the C firmware: semihosting output and exit, and the core's clock, spin
 * loop and stack pointer (inline, from the architecture's header: cortex_m.h or rv32.h). */
#ifndef TINYAOT_FIRMWARE_H
#define TINYAOT_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

/* Writes `len` bytes to the host's stdout (semihosting SYS_WRITE on ":tt"). */
void out_bytes(const char *bytes, size_t len);
/* Writes a NUL-terminated string. */
void out_str(const char *s);
/* Writes an unsigned decimal number. */
void out_u64(uint64_t value);
/* Leaves QEMU: exit status 0 when `success`, 1 otherwise (semihosting SYS_EXIT). */
void semihosting_exit(int success);
/* One semihosting call: `operation` with its argument (cortex_m.c, rv32.c). */
int semihost_call(int operation, const void *argument);
/* Starts the clock that clock_now() reads (cortex_m.c: SysTick; rv32.c: nothing to do). */
void clock_start(void);
/* The operator hooks of `cargo xtask mcu --profile` (main.c, with -DTINYAOT_MCU_PROFILE). */
void mcu_op_begin(int index, const char *name);
void mcu_op_end(int index, const char *name);

#if defined(__riscv)
#include "rv32.h"
#elif defined(__arm__)
#include "cortex_m.h"
#else
#error "the firmware runs on Cortex-M or RV32 cores"
#endif

#endif

/* Shared declarations of the C firmware: semihosting output and exit, and the SysTick handler. */
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
/* Counts SysTick wraps (see main.c). */
void systick_handler(void);
/* The operator hooks of `cargo xtask mcu --profile` (main.c, with -DTINYAOT_MCU_PROFILE). */
void mcu_op_begin(int index, const char *name);
void mcu_op_end(int index, const char *name);

#endif

/* Semihosting, the few calls the firmware needs: open ":tt" (the host's console), write to it,
 * and exit. The protocol is Arm's, and RISC-V's is the same on RV32: the operation and a pointer
 * to its argument block in the first two argument registers, the result in the first. Only the
 * trap differs (semihost_call: `bkpt 0xAB` in cortex_m.c, the `ebreak` sequence in rv32.c). Under
 * QEMU it needs `-semihosting-config enable=on,target=native`.
 */
#include "firmware.h"

#define SYS_OPEN 0x01
#define SYS_WRITE 0x05
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023

/* The console's handle, opened on first use (0 is a valid handle, so -1 means "not yet"). */
static int console = -1;

void out_bytes(const char *bytes, size_t len)
{
    uintptr_t args[3];
    if (console < 0) {
        /* Mode 4 is "w", as C's fopen; the length excludes the NUL. */
        static const char name[] = ":tt";
        uintptr_t open_args[3] = {(uintptr_t)name, 4, sizeof name - 1};
        console = semihost_call(SYS_OPEN, open_args);
    }
    args[0] = (uintptr_t)console;
    args[1] = (uintptr_t)bytes;
    args[2] = len;
    semihost_call(SYS_WRITE, args);
}

void out_str(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0') {
        ++n;
    }
    out_bytes(s, n);
}

void out_u64(uint64_t value)
{
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    out_bytes(digits + i, sizeof digits - i);
}

void semihosting_exit(int success)
{
    /* On 32-bit Arm and RV32 the argument is the reason code itself, not a pointer. */
    semihost_call(SYS_EXIT, (const void *)(uintptr_t)(success ? ADP_STOPPED_APPLICATION_EXIT
                                                         : ADP_STOPPED_RUN_TIME_ERROR));
}

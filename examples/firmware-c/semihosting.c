/* Arm semihosting, the few calls the firmware needs: open ":tt" (the host's console), write to it,
 * and exit. A semihosting call on M-profile is `bkpt 0xAB` with the operation in r0 and a pointer
 * to its argument block in r1; the result comes back in r0. Under QEMU it needs
 * `-semihosting-config enable=on,target=native`.
 */
#include "firmware.h"

#define SYS_OPEN 0x01
#define SYS_WRITE 0x05
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023

static int semihost(int operation, const void *argument)
{
    register int r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* The console's handle, opened on first use (0 is a valid handle, so -1 means "not yet"). */
static int console = -1;

void out_bytes(const char *bytes, size_t len)
{
    uintptr_t args[3];
    if (console < 0) {
        /* Mode 4 is "w", as C's fopen; the length excludes the NUL. */
        static const char name[] = ":tt";
        uintptr_t open_args[3] = {(uintptr_t)name, 4, sizeof name - 1};
        console = semihost(SYS_OPEN, open_args);
    }
    args[0] = (uintptr_t)console;
    args[1] = (uintptr_t)bytes;
    args[2] = len;
    semihost(SYS_WRITE, args);
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
    /* On 32-bit Arm the argument is the reason code itself, not a pointer. */
    semihost(SYS_EXIT, (const void *)(uintptr_t)(success ? ADP_STOPPED_APPLICATION_EXIT
                                                         : ADP_STOPPED_RUN_TIME_ERROR));
}

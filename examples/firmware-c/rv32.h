/* The RV32 side of the firmware's clock (firmware.h): the minstret counter, which QEMU derives from
 * its instruction count under `-icount shift=0`, so one tick is one instruction (the host checks
 * the ratio with the calibration loop). */
#ifndef TINYAOT_FIRMWARE_RV32_H
#define TINYAOT_FIRMWARE_RV32_H

#include <stdint.h>

/* Instructions retired since reset, all 64 bits: the high half read again until it is stable, so
 * that a carry between the two reads cannot pair halves of different counts. */
static inline uint64_t clock_now(void)
{
    uint32_t hi, lo, again;
    do {
        __asm__ volatile("csrr %0, minstreth" : "=r"(hi));
        __asm__ volatile("csrr %0, minstret" : "=r"(lo));
        __asm__ volatile("csrr %0, minstreth" : "=r"(again));
    } while (hi != again);
    __asm__ volatile("" ::: "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Executes exactly 2 * n instructions (an addi/bnez loop), for the tick calibration. */
static inline void spin(uint32_t n)
{
    __asm__ volatile("1:\n\taddi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n));
}

static inline uintptr_t stack_pointer(void)
{
    uintptr_t sp;
    __asm__ volatile("mv %0, sp" : "=r"(sp));
    return sp;
}

#endif

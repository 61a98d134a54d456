/* The Cortex-M side of the firmware's clock (firmware.h): SysTick on the core clock, with its wraps
 * counted by cortex_m.c's handler. Under `qemu-system-arm -icount shift=0` virtual time advances
 * one nanosecond per instruction, so ticks convert to instructions at the board's clock (the host
 * checks the ratio with the calibration loop). Shared by every Cortex-M core, ARMv6-M included. */
#ifndef TINYAOT_FIRMWARE_CORTEX_M_H
#define TINYAOT_FIRMWARE_CORTEX_M_H

#include <stdint.h>

#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
/* SysTick reload value: the full 24 bits, so wraps (and their interrupts) are rare. */
#define SYST_RELOAD 0x00FFFFFFu

/* SysTick wraps so far (cortex_m.c). */
extern volatile uint32_t systick_wraps;

/* SysTick ticks since clock_start(): wraps times the period plus the current count. */
static inline uint64_t clock_now(void)
{
    for (;;) {
        uint32_t w = systick_wraps;
        uint32_t current = SYST_CVR;
        /* A wrap between the two reads would pair an old count with a new value: read again. */
        if (systick_wraps == w) {
            __asm__ volatile("" ::: "memory");
            return (uint64_t)w * ((uint64_t)SYST_RELOAD + 1u) + (SYST_RELOAD - current);
        }
    }
}

/* Executes exactly 2 * n instructions (a subs/bne loop), for the tick calibration. */
static inline void spin(uint32_t n)
{
    __asm__ volatile("1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
}

static inline uintptr_t stack_pointer(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

#endif

/* Start-up and core services of the C firmware on every Cortex-M core (QEMU's mps2-an385,
 * mps2-an386, mps2-an500, mps2-an505 and mps3-an547; the board's memory is its linker script):
 * the vector table, the reset handler (FPU on where there is one, `.data` copied, `.bss` zeroed,
 * call main), the exception handlers, SysTick, and the semihosting trap. No libc start files: the
 * firmware links with -nostartfiles, and newlib-nano only for memcpy/memset.
 */
#include <stdint.h>

#include "firmware.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_top;

int main(void);

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
/* CSR: ENABLE | TICKINT | CLKSOURCE (the core clock). */
#define SYST_CSR_START 0x7u

volatile uint32_t systick_wraps;

static void systick_handler(void) { systick_wraps = systick_wraps + 1; }

void clock_start(void)
{
    SYST_RVR = SYST_RELOAD;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_START;
}

int semihost_call(int operation, const void *argument)
{
    register int r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#if defined(__ARM_FP)
/* Coprocessor Access Control Register: CP10 and CP11 (the FPU, and M55's MVE) are off at reset. */
#define CPACR (*(volatile uint32_t *)0xE000ED88u)
#endif

#if defined(__ARM_ARCH_6M__)
/* Configuration and Control Register: UNALIGN_TRP (bit 3) makes unaligned accesses fault. */
#define CCR (*(volatile uint32_t *)0xE000ED14u)
#endif

void reset_handler(void)
{
    uint32_t *dst;
    const uint32_t *src;
#if defined(__ARM_ARCH_6M__)
    /* ARMv6-M code runs on a Cortex-M3 board (mps2-an385), which would load unaligned words where a
     * Cortex-M0+ faults: trap them as the M0+ does, so that an unaligned access fails the run. */
    CCR |= 1u << 3;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
#if defined(__ARM_FP)
    /* Full access to CP10/CP11 before any code that may use the FPU (the ABI is hard-float). */
    CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    for (dst = &__data_start, src = &__data_load; dst < &__data_end;) {
        *dst++ = *src++;
    }
    for (dst = &__bss_start; dst < &__bss_end;) {
        *dst++ = 0;
    }
    semihosting_exit(main() == 0);
    for (;;) {
    }
}

/* A fault is a failure of the run: say which, and leave QEMU with a failure status. */
static void fault(const char *what)
{
    out_str("error: ");
    out_str(what);
    out_str("\n");
    semihosting_exit(0);
    for (;;) {
    }
}

static void nmi_handler(void) { fault("NMI"); }
static void hard_fault_handler(void) { fault("HardFault"); }
static void mem_manage_handler(void) { fault("MemManage"); }
static void bus_fault_handler(void) { fault("BusFault"); }
static void usage_fault_handler(void) { fault("UsageFault"); }
static void secure_fault_handler(void) { fault("SecureFault"); }
static void unexpected_handler(void) { fault("unexpected exception"); }

typedef void (*vector)(void);

/* The initial stack pointer, then the 15 system exception vectors (the firmware enables no
 * external interrupt, so the table stops there). Entries 4-7 are reserved on ARMv6-M, and 7 on
 * cores without the Security Extension: never taken there. The linker script puts the table where
 * the board boots (its VECTORS region). */
__attribute__((section(".vector_table"), used)) static const vector vector_table[16] = {
    (vector)(uintptr_t)&__stack_top,
    reset_handler,
    nmi_handler,
    hard_fault_handler,
    mem_manage_handler,
    bus_fault_handler,
    usage_fault_handler,
    secure_fault_handler,
    0,
    0,
    0,
    unexpected_handler, /* SVCall */
    unexpected_handler, /* DebugMonitor */
    0,
    unexpected_handler, /* PendSV */
    systick_handler,
};

/* Start-up for the C firmware on a Cortex-M4 (QEMU mps2-an386): the vector table, the reset handler
 * (enable the FPU, copy .data, zero .bss, call main) and the exception handlers. No libc start
 * files: the firmware links with -nostartfiles, and newlib-nano only for memcpy/memset.
 */
#include <stdint.h>

#include "firmware.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_top;

int main(void);

/* Coprocessor Access Control Register: CP10 and CP11 (the FPU) are off at reset. */
#define CPACR (*(volatile uint32_t *)0xE000ED88u)

void reset_handler(void)
{
    uint32_t *dst;
    const uint32_t *src;
    /* Full access to CP10/CP11 before any code that may use the FPU (the ABI is hard-float). */
    CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
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
static void unexpected_handler(void) { fault("unexpected exception"); }

typedef void (*vector)(void);

/* The initial stack pointer, then the 15 system exception vectors (the firmware enables no
 * external interrupt, so the table stops there). */
__attribute__((section(".vector_table"), used)) static const vector vector_table[16] = {
    (vector)(uintptr_t)&__stack_top,
    reset_handler,
    nmi_handler,
    hard_fault_handler,
    mem_manage_handler,
    bus_fault_handler,
    usage_fault_handler,
    0,
    0,
    0,
    0,
    unexpected_handler, /* SVCall */
    unexpected_handler, /* DebugMonitor */
    0,
    unexpected_handler, /* PendSV */
    systick_handler,
};

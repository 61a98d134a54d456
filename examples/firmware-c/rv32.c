/* Start-up and core services of the C firmware on RV32 (QEMU's `virt` machine; the memory is
 * riscv_virt.ld): _start (gp, sp, the trap vector), the C start-up (`.data` copied, `.bss`
 * zeroed, call main), the trap handler, and the semihosting trap. No libc start files: the
 * firmware links with -nostartfiles, and picolibc only for memcpy/memset.
 */
#include <stdint.h>

#include "firmware.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end;

int main(void);
void start_c(void);

/* The first instructions at 0x80000000, where `-bios none` starts the core: gp without linker
 * relaxation (which would address it relative to itself), the stack, and the trap vector. */
__asm__(".section .text.start, \"ax\", @progbits\n"
        ".globl _start\n"
        "_start:\n"
        ".option push\n"
        ".option norelax\n"
        "    la gp, __global_pointer$\n"
        ".option pop\n"
        "    la sp, __stack_top\n"
        "    la t0, trap_handler\n"
        "    csrw mtvec, t0\n"
        "    call start_c\n"
        "1:  j 1b\n");

void start_c(void)
{
    uint32_t *dst;
    const uint32_t *src;
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

/* Every trap is a failure of the run (the firmware enables no interrupt): say which, and leave
 * QEMU with a failure status. mtvec needs a 4-byte-aligned address in direct mode. */
__attribute__((interrupt("machine"), aligned(4))) void trap_handler(void)
{
    uint32_t cause, pc;
    __asm__ volatile("csrr %0, mcause" : "=r"(cause));
    __asm__ volatile("csrr %0, mepc" : "=r"(pc));
    out_str("error: trap mcause=");
    out_u64(cause);
    out_str(" mepc=");
    out_u64(pc);
    out_str("\n");
    semihosting_exit(0);
    for (;;) {
    }
}

/* Nothing to start: minstret counts from reset. */
void clock_start(void) {}

/* RISC-V semihosting: the operation in a0, its argument in a1, the result in a0, and the trap an
 * `ebreak` between two marker instructions, all three uncompressed (RISC-V semihosting spec). */
__attribute__((noinline)) int semihost_call(int operation, const void *argument)
{
    register int a0 __asm__("a0") = operation;
    register const void *a1 __asm__("a1") = argument;
    __asm__ volatile(".option push\n"
                     ".option norvc\n"
                     "slli zero, zero, 0x1f\n"
                     "ebreak\n"
                     "srai zero, zero, 7\n"
                     ".option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return a0;
}

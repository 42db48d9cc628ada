/*
 * Startup code for QEMU riscv32 `virt` (-bios none), the RISC-V target of
 * scripts/firmware-targets.sh; the counterpart of ../../startup.c.
 *
 * _start (at 0x80000000, where QEMU's reset code jumps) sets gp, sp and the
 * trap vector, then reset_c copies .data, zeroes .bss, runs static
 * constructors (.init_array), calls main() and exits QEMU through semihosting
 * SYS_EXIT_EXTENDED with main's return value. Any trap (the firmware enables
 * no interrupt, so an exception) prints its cause and exits with status 254.
 */
#include <stdint.h>

#include "semihost.h"

int main(void);

extern uint32_t __data_load__[];
extern uint32_t __data_start__[];
extern uint32_t __data_end__[];
extern uint32_t __bss_start__[];
extern uint32_t __bss_end__[];

typedef void (*init_fn)(void);
extern init_fn __preinit_array_start[];
extern init_fn __preinit_array_end[];
extern init_fn __init_array_start[];
extern init_fn __init_array_end[];

void reset_c(void) __attribute__((noreturn, used));
void trap_c(void) __attribute__((noreturn, used));

__asm__(
    "    .section .text.start, \"ax\", @progbits\n"
    "    .globl _start\n"
    "    .type _start, @function\n"
    "_start:\n"
    "    .option push\n"
    "    .option norelax\n"
    "    la    gp, __global_pointer$\n"
    "    .option pop\n"
    "    la    sp, __stack_top__\n"
    "    la    t0, trap_entry\n"
    "    .option push\n"
    "    .option arch, +zicsr\n"
    "    csrw  mtvec, t0\n"
    "    .option pop\n"
    "    j     reset_c\n"
    "    .size _start, . - _start\n"
    /* mtvec (direct mode) needs a 4-byte aligned address. */
    "    .balign 4\n"
    "trap_entry:\n"
    "    j     trap_c\n");

/* Keep GCC from turning the copy/zero loops into memcpy/memset calls. */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
void reset_c(void)
{
    const uint32_t *src = __data_load__;
    uint32_t *dst = __data_start__;
    while (dst < __data_end__) {
        *dst++ = *src++;
    }
    for (dst = __bss_start__; dst < __bss_end__; ++dst) {
        *dst = 0u;
    }
    for (init_fn *f = __preinit_array_start; f < __preinit_array_end; ++f) {
        (*f)();
    }
    for (init_fn *f = __init_array_start; f < __init_array_end; ++f) {
        (*f)();
    }
    semihost_exit(main());
}

void trap_c(void)
{
    uint32_t cause, epc, tval;
    /* -march=rv32imac: the CSR instructions are Zicsr's, enabled here only. */
    __asm__ volatile(".option push\n\t.option arch, +zicsr\n\t"
                     "csrr %0, mcause\n\tcsrr %1, mepc\n\tcsrr %2, mtval\n\t.option pop"
                     : "=r"(cause), "=r"(epc), "=r"(tval));
    semihost_printf("\n*** unexpected trap: mcause %u, mepc 0x%x, mtval 0x%x, exiting with 254\n",
                    (unsigned)cause, (unsigned)epc, (unsigned)tval);
    semihost_exit(254);
}

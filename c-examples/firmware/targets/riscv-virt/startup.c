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

#include "crt_start.h"
#include "semihost.h"

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
    crt_start();
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

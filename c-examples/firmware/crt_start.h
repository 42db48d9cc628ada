/*
 * The C runtime start shared by the bench firmwares' startup code
 * (startup.c for the Arm machines, targets/riscv-virt/startup.c): the linker
 * scripts' symbols and crt_start(), which copies .data, zeroes .bss, runs the
 * static constructors (.preinit_array, .init_array), calls main() and exits
 * QEMU through semihosting with main's return value.
 *
 * crt_start() is inlined into the reset code that calls it, which runs before
 * the C runtime is set up: GCC must not turn its copy and zero loops into
 * memcpy/memset calls (no-tree-loop-distribute-patterns, on the caller too).
 */
#ifndef KPCA_FW_CRT_START_H
#define KPCA_FW_CRT_START_H

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

__attribute__((optimize("no-tree-loop-distribute-patterns"), always_inline, noreturn))
static inline void crt_start(void)
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

#endif

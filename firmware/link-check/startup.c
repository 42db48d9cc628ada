/*
 * Reset code for the link check (scripts/link-check.sh): copy .data from flash,
 * zero .bss, call main, then stop. Cortex-M0+: a vector table (initial SP,
 * reset, the other exceptions to one handler). RV32: _start sets the stack
 * pointer and jumps to the reset code. Symbols come from the linker scripts
 * cortex-m0plus.ld and rv32imac.ld here.
 */
#include <stdint.h>

int main(void);

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];

/* main's return value, for a debugger. */
int volatile link_check_exit_code;

void reset_c(void) __attribute__((noreturn, used));

void reset_c(void) {
    const uint32_t *src = __data_load__;
    for (uint32_t *dst = __data_start__; dst < __data_end__;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = __bss_start__; dst < __bss_end__;) {
        *dst++ = 0;
    }
    link_check_exit_code = main();
    for (;;) {
    }
}

#if defined(__arm__)

extern uint32_t __stack_top__[];

static void default_handler(void) {
    for (;;) {
    }
}

/* Cortex-M0+ (ARMv6-M): initial SP, then 15 system exceptions. */
__attribute__((section(".isr_vector"), used))
const uintptr_t vector_table[16] = {
    (uintptr_t)__stack_top__,   /* initial SP */
    (uintptr_t)reset_c,         /* Reset */
    (uintptr_t)default_handler, /* NMI */
    (uintptr_t)default_handler, /* HardFault */
    0, 0, 0, 0, 0, 0, 0,        /* reserved on ARMv6-M */
    (uintptr_t)default_handler, /* SVCall */
    0, 0,                       /* reserved */
    (uintptr_t)default_handler, /* PendSV */
    (uintptr_t)default_handler, /* SysTick */
};

#elif defined(__riscv)

/* Entry point: stack pointer from the linker script, then the reset code.
   No gp relaxation (__global_pointer$ is not defined). */
__asm__(
    "    .section .text.start, \"ax\", @progbits\n"
    "    .globl _start\n"
    "    .type _start, @function\n"
    "_start:\n"
    "    la sp, __stack_top__\n"
    "    j reset_c\n"
    "    .size _start, . - _start\n");

#else
#error "link check: unsupported architecture"
#endif

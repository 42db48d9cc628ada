/*
 * Startup code for QEMU mps2-an386 (Cortex-M4F), also used for the other Arm
 * machines of scripts/firmware-targets.sh (microbit Cortex-M0, mps2-an505
 * Cortex-M33, mps2-an500 Cortex-M7; their linker scripts place the vector table).
 *
 * Vector table at 0x00000000, Reset_Handler that enables the FPU (when built
 * for one), copies .data,
 * zeroes .bss, runs static constructors (.init_array), calls main() and exits
 * QEMU through semihosting SYS_EXIT_EXTENDED with main's return value.
 * Any fault or unexpected exception prints a message and exits with status 254.
 */
#include <stdint.h>

#include "crt_start.h"
#include "semihost.h"

extern uint32_t __stack_top__[];

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define SCB_ICSR  (*(volatile uint32_t *)0xE000ED04u)

void Reset_Handler(void);
void Default_Handler(void);

/*
 * Keep GCC from turning the copy/zero loops into memcpy/memset calls: this
 * code runs before the C runtime is set up.
 */
__attribute__((optimize("no-tree-loop-distribute-patterns"), noreturn))
void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* Full access to CP10 and CP11 (the FPU) before any FP instruction runs.
     * Skipped when built without one (-mfloat-abi=soft, e.g. the Cortex-M0,
     * where CPACR is reserved). */
    SCB_CPACR |= (0xFu << 20);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    crt_start();
}

__attribute__((noreturn))
void Default_Handler(void)
{
    uint32_t vect = SCB_ICSR & 0x1FFu;
    semihost_printf("\n*** unexpected exception %u (%s), exiting with 254\n",
                    (unsigned)vect,
                    vect == 3 ? "HardFault" : vect == 4 ? "MemManage" :
                    vect == 5 ? "BusFault" : vect == 6 ? "UsageFault" : "other");
    semihost_exit(254);
}

/* The first entry is the initial stack pointer, the rest are handlers. */
typedef union {
    void (*handler)(void);
    void *stack_top;
} vector_entry;

#define DH { .handler = Default_Handler }

__attribute__((section(".isr_vector"), used))
const vector_entry vector_table[16 + 32] = {
    [0]  = { .stack_top = __stack_top__ },
    [1]  = { .handler = Reset_Handler },
    [2]  = { .handler = Default_Handler },   /* NMI */
    [3]  = { .handler = Default_Handler },   /* HardFault */
    [4]  = { .handler = Default_Handler },   /* MemManage */
    [5]  = { .handler = Default_Handler },   /* BusFault */
    [6]  = { .handler = Default_Handler },   /* UsageFault */
    [11] = { .handler = Default_Handler },   /* SVCall */
    [12] = { .handler = Default_Handler },   /* DebugMonitor */
    [14] = { .handler = Default_Handler },   /* PendSV */
    [15] = { .handler = Default_Handler },   /* SysTick */
    /* External interrupts 0..31: not enabled by this harness. */
    [16] = DH, DH, DH, DH, DH, DH, DH, DH,
    [24] = DH, DH, DH, DH, DH, DH, DH, DH,
    [32] = DH, DH, DH, DH, DH, DH, DH, DH,
    [40] = DH, DH, DH, DH, DH, DH, DH, DH,
};

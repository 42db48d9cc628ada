/* Stack painting (see stack.h). Arm (Thumb, ARMv6-M and later) and RV32. */
#include "stack.h"

extern uint32_t __stack_limit__[];
extern uint32_t __stack_top__[];

/* Stack pointer at the last stack_paint() call (the caller's SP). */
uint32_t stack_paint_sp;

#if defined(__arm__)

/*
 * Written in assembly so that it uses no stack itself: the SP seen here is
 * exactly the caller's SP at the call. Fills [__stack_limit__, sp) with the
 * pattern, one word at a time. Thumb-1 instructions only (ARMv6-M has no
 * post-indexed store), so the same code serves every Cortex-M; unified syntax
 * (GCC passes Thumb-1 inline assembly to the assembler in divided syntax).
 */
__attribute__((naked)) void stack_paint(void)
{
    __asm__ volatile(
        "    .syntax unified\n"
        "    mov   r0, sp\n"
        "    ldr   r1, =stack_paint_sp\n"
        "    str   r0, [r1]\n"
        "    ldr   r1, =__stack_limit__\n"
        "    ldr   r2, =0xC5A5C5A5\n"       /* STACK_PAINT_WORD */
        "1:  cmp   r1, r0\n"
        "    bhs   2f\n"
        "    str   r2, [r1]\n"
        "    adds  r1, r1, #4\n"
        "    b     1b\n"
        "2:  bx    lr\n"
        "    .ltorg\n");
}

/*
 * Also assembly, so that the scan itself writes nothing to the stack. Returns
 * stack_paint_sp minus the address of the lowest word that differs from the
 * pattern (0 if every painted word is intact).
 */
__attribute__((naked)) uint32_t stack_high_water(void)
{
    __asm__ volatile(
        "    .syntax unified\n"
        "    ldr   r1, =stack_paint_sp\n"
        "    ldr   r1, [r1]\n"
        "    ldr   r0, =__stack_limit__\n"
        "    ldr   r2, =0xC5A5C5A5\n"       /* STACK_PAINT_WORD */
        "1:  cmp   r0, r1\n"
        "    bhs   2f\n"
        "    ldr   r3, [r0]\n"
        "    cmp   r3, r2\n"
        "    bne   2f\n"
        "    adds  r0, r0, #4\n"
        "    b     1b\n"
        "2:  subs  r0, r1, r0\n"
        "    bx    lr\n"
        "    .ltorg\n");
}

#define READ_SP(v) __asm__ volatile("mov %0, sp" : "=r"(v))

#elif defined(__riscv) && __riscv_xlen == 32

/* The same two routines for RV32 (scripts/firmware-targets.sh, QEMU virt). */
__attribute__((naked)) void stack_paint(void)
{
    __asm__ volatile(
        "    la    t0, stack_paint_sp\n"
        "    sw    sp, 0(t0)\n"
        "    la    t0, __stack_limit__\n"
        "    li    t1, 0xC5A5C5A5\n"        /* STACK_PAINT_WORD */
        "1:  bgeu  t0, sp, 2f\n"
        "    sw    t1, 0(t0)\n"
        "    addi  t0, t0, 4\n"
        "    j     1b\n"
        "2:  ret\n");
}

__attribute__((naked)) uint32_t stack_high_water(void)
{
    __asm__ volatile(
        "    la    t0, stack_paint_sp\n"
        "    lw    t0, 0(t0)\n"
        "    la    a0, __stack_limit__\n"
        "    li    t1, 0xC5A5C5A5\n"        /* STACK_PAINT_WORD */
        "1:  bgeu  a0, t0, 2f\n"
        "    lw    t2, 0(a0)\n"
        "    bne   t2, t1, 2f\n"
        "    addi  a0, a0, 4\n"
        "    j     1b\n"
        "2:  sub   a0, t0, a0\n"
        "    ret\n");
}

#define READ_SP(v) __asm__ volatile("mv %0, sp" : "=r"(v))

#else
#error "stack.c: Arm (Thumb) or RV32 only"
#endif

uint32_t stack_paint_span(void)
{
    return stack_paint_sp - (uint32_t)(uintptr_t)__stack_limit__;
}

uint32_t stack_in_use(void)
{
    uint32_t sp;
    READ_SP(sp);
    return (uint32_t)(uintptr_t)__stack_top__ - sp;
}

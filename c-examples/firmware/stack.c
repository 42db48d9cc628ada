/* Stack painting (see stack.h). */
#include "stack.h"

extern uint32_t __stack_limit__[];
extern uint32_t __stack_top__[];

/* Stack pointer at the last stack_paint() call (the caller's SP). */
uint32_t stack_paint_sp;

/*
 * Written in assembly so that it uses no stack itself: the SP seen here is
 * exactly the caller's SP at the call. Fills [__stack_limit__, sp) with the
 * pattern, one word at a time.
 */
__attribute__((naked)) void stack_paint(void)
{
    __asm__ volatile(
        "    mov   r0, sp\n"
        "    ldr   r1, =stack_paint_sp\n"
        "    str   r0, [r1]\n"
        "    ldr   r1, =__stack_limit__\n"
        "    ldr   r2, =0xC5A5C5A5\n"       /* STACK_PAINT_WORD */
        "1:  cmp   r1, r0\n"
        "    bhs   2f\n"
        "    str   r2, [r1], #4\n"
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

uint32_t stack_paint_span(void)
{
    return stack_paint_sp - (uint32_t)(uintptr_t)__stack_limit__;
}

uint32_t stack_in_use(void)
{
    uint32_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return (uint32_t)(uintptr_t)__stack_top__ - sp;
}

/*
 * Stack high-water measurement by painting.
 *
 *   stack_paint();                 // fill the unused stack below the caller's SP
 *   f();                           // code to measure
 *   uint32_t used = stack_high_water();   // bytes below the caller's SP touched
 *
 * stack_paint() fills every word from the bottom of the stack region
 * (__stack_limit__) up to the stack pointer at the call with STACK_PAINT_WORD,
 * and remembers that stack pointer. stack_high_water() scans up from the bottom
 * for the first overwritten word and returns how many bytes below the painted
 * stack pointer were used since stack_paint() (0 if none). The result counts
 * every word written, including stack frames of the measured functions and any
 * padding they reserve. A word that is written with exactly STACK_PAINT_WORD
 * is not seen, so the figure can in principle be low by the size of such words
 * at the deepest point (unlikely with this pattern).
 *
 * Call both from the same function (same stack depth).
 */
#ifndef KPCA_FW_STACK_H
#define KPCA_FW_STACK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STACK_PAINT_WORD 0xC5A5C5A5u

void stack_paint(void);
uint32_t stack_high_water(void);

/* Bytes between the bottom of the stack region and the painted SP. */
uint32_t stack_paint_span(void);

/* Bytes of stack in use (top of stack minus current SP) at the call. */
uint32_t stack_in_use(void);

#ifdef __cplusplus
}
#endif

#endif /* KPCA_FW_STACK_H */
